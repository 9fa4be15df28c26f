// Cookie names and attributes in one place.
export const sessionCookie = 'GATEWAY_SESSION';
export const csrfCookie = 'XSRF-TOKEN';
/** The nonce binding a sign-in to the browser that began it (decision 351). */
export const signInCookie = 'GATEWAY_SIGN_IN';
export const csrfHeader = 'x-xsrf-token';

export const cookieOptions = (secure: boolean, httpOnly: boolean) => ({
  path: '/',
  sameSite: 'lax' as const,
  secure,
  httpOnly,
});
