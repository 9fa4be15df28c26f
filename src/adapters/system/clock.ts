export type Clock = Readonly<{ now(): Date; instant(): string }>;

export const systemClock: Clock = {
  now: () => new Date(),
  instant: () => new Date().toISOString(),
};
