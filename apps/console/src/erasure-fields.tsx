/** What an erasure asks for, wherever it starts: the user ID twice, and the password for a governance session. */
export interface ErasureInput {
  userId: string;
  confirmation: string;
  password: string;
}

/** Whether the user ID was typed the same twice, which every erasure needs before it is sent. */
export const erasureConfirmed = (input: ErasureInput) => input.userId !== "" && input.confirmation === input.userId;

/** The fields of an erasure form: the user ID, the same ID again, and the password typed again. */
export function ErasureFields({ input, onChange }: { input: ErasureInput; onChange: (input: ErasureInput) => void }) {
  return (
    <>
      <label>
        User ID to erase
        <input required value={input.userId} onChange={(event) => onChange({ ...input, userId: event.target.value })} />
      </label>
      <label>
        Type the user ID again to confirm
        <input required value={input.confirmation} onChange={(event) => onChange({ ...input, confirmation: event.target.value })} />
      </label>
      <label>
        Your password (opens a short governance session)
        <input
          type="password"
          autoComplete="current-password"
          required
          value={input.password}
          onChange={(event) => onChange({ ...input, password: event.target.value })}
        />
      </label>
    </>
  );
}
