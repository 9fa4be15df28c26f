// A refusal as ProblemNotice shows it, plus what a 502 about an unreadable upstream adds (docs/marketplaces.md,
// Registration: the problem carries reason, rootCause, nextStep).
import { ApiError } from '../api/client';
import { ProblemNotice } from './ui';

const textField = (problem: Record<string, unknown>, key: string): string | null =>
  typeof problem[key] === 'string' && problem[key] !== '' ? (problem[key] as string) : null;

export function ActionProblem({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ApiError ? (error.problem as unknown as Record<string, unknown>) : {};
  const rootCause = textField(problem, 'rootCause');
  const nextStep = textField(problem, 'nextStep');
  return (
    <>
      <ProblemNotice error={error} />
      {rootCause || nextStep ? (
        <div className="notice">
          {rootCause ? <p>Root cause: {rootCause}</p> : null}
          {nextStep ? <p>Next step: {nextStep}</p> : null}
        </div>
      ) : null}
    </>
  );
}
