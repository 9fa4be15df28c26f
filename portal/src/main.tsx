import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ApiError, signInUrl } from './api/client';
import { meQuery, SessionProvider } from './api/session';
import { Loading, ProblemNotice } from './components/ui';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      // A refusal is an answer, not a reason to ask again.
      retry: (count, error) => !(error instanceof ApiError && error.problem.status < 500) && count < 2,
    },
  },
});

function SignedIn() {
  const me = useQuery(meQuery());
  if (me.error instanceof ApiError && me.error.problem.status === 401) {
    location.assign(signInUrl());
    return <Loading what="Signing in" />;
  }
  if (me.error)
    return (
      <main id="main">
        <ProblemNotice error={me.error} />
      </main>
    );
  if (!me.data) return <Loading />;
  return (
    <SessionProvider me={me.data}>
      <App />
    </SessionProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SignedIn />
    </QueryClientProvider>
  </StrictMode>,
);
