import { useEffect, useRef, useState } from "react";

/**
 * A button whose action is asked once more before it runs: the confirmation replaces the button and
 * takes the focus, so the keyboard confirms with a second Enter, and Cancel is one Tab away.
 */
export function ConfirmAction({
  label,
  confirmLabel,
  onConfirm,
  pending,
  danger = false,
}: {
  label: string;
  confirmLabel: string;
  onConfirm(): void;
  pending: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  // The action done (or refused), the question closes: a second run needs a second ask.
  const wasPending = useRef(pending);
  useEffect(() => {
    if (wasPending.current && !pending) setAsking(false);
    wasPending.current = pending;
  }, [pending]);
  if (!asking) {
    return (
      <button type="button" className={danger ? "danger" : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="actions">
      <button ref={confirm} type="button" className={danger ? "danger" : "primary"} disabled={pending} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
