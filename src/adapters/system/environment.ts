// The only process environment the rest of the code may see: what a spawned tool needs to be found.
export const executableSearchPath = (): string => process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
