/**
 * A configuration problem. The message is always ONE line and starts with the dotted key
 * (or with `config file <path>` for problems with the file itself). Values of secret keys
 * never appear in it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The dotted key the problem is about; null when it is about the config file as a whole. */
  readonly key: string | null;
  /** The message without the leading key. */
  readonly problem: string;

  constructor(key: string | null, problem: string) {
    const oneLine = problem.replace(/[\r\n]+/g, ' ');
    super(key === null ? oneLine : `${key}: ${oneLine}`);
    this.key = key;
    this.problem = oneLine;
  }
}
