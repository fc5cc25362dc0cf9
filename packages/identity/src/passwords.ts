import { AppError } from "@als/contract";

/**
 * Passwords are hashed with argon2id through Bun's built-in implementation, at OWASP's
 * recommended cost (19 MiB, two passes): about 30 ms per hash, paid at log-in and registration
 * only, never on an API request.
 */
const ARGON2ID = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export async function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2ID);
}

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  // Without a hash (an OpenID-only member) a password never matches; hash anyway so the answer
  // takes as long as a real check and does not reveal which addresses have a password.
  if (hash === null) {
    await Bun.password.hash(password, ARGON2ID);
    return false;
  }
  return Bun.password.verify(password, hash);
}

/** 422 naming `field` when the password is too short or too long. */
export function checkPasswordStrength(password: string, field = "password"): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw AppError.validation([
      { loc: ["body", field], msg: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`, type: "password_strength" },
    ]);
  }
}
