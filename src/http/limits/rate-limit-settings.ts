// The settings the rate limits take (gateway.rate-limit.*), apart from the limiter so that HttpDeps can name
// them without importing the limiter, which takes HttpDeps.
export type Budget = Readonly<{ perCredential: number; perAddress: number }>;

/** Beginning a sign-in: a budget per address, and how many begun sign-ins are kept at most (decision 352). */
export type SignInLimits = Readonly<{ perAddress: number; maxPending: number }>;

/** gateway.rate-limit.*: a budget of 0 means no budget of that kind. */
export type RateLimitSettings = Readonly<{
  enabled: boolean;
  windowMs: number;
  api: Budget;
  facade: Budget;
  signIn: SignInLimits;
}>;
