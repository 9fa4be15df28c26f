// A form that sends one change to the gateway: its heading, its fields, what the gateway answered if it refused
// the change, and the submit button, disabled while the change is on its way; and the change that adds to a
// list, which reads the list again once the gateway has taken it.
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { ProblemNotice } from './ui';

export function ChangeForm({
  id,
  title,
  submit,
  change,
  children,
}: {
  /** The heading's id is `<id>-title`; the form is named by it. */
  id: string;
  title: string;
  /** What the submit button says. */
  submit: string;
  /** The change, as useMutation answers it: sent by the submit button, pending, or refused. */
  change: Readonly<{ mutate: () => void; error: unknown; isPending: boolean }>;
  children: ReactNode;
}) {
  const send = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  return (
    <form className="stack" onSubmit={send} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {children}
      <ProblemNotice error={change.error} />
      <div>
        <button type="submit" disabled={change.isPending}>
          {submit}
        </button>
      </div>
    </form>
  );
}

/**
 * A change that adds to a list: once the gateway has taken it, `then` has its answer (the form starts empty
 * again, a secret is shown once) and the list is read again.
 */
export function useListChange<V, T>(list: QueryKey, send: (variables: V) => Promise<T>, then: (answer: T) => void) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: async (answer: T) => {
      then(answer);
      await queries.invalidateQueries({ queryKey: list });
    },
  });
}
