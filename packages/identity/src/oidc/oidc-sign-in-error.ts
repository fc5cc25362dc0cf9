/** A sign-in through the OpenID Connect provider was refused; the message says which check failed. */
export class OidcSignInError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OidcSignInError";
  }
}
