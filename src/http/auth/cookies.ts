// Cookie names and attributes in one place.
export const sessionCookie = 'GATEWAY_SESSION';
export const csrfCookie = 'XSRF-TOKEN';
export const csrfHeader = 'x-xsrf-token';

export const cookieOptions = (secure: boolean, httpOnly: boolean) => ({
  path: '/',
  sameSite: 'lax' as const,
  secure,
  httpOnly,
});
