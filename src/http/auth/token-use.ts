// Recording a token's use is a use case (src/application/token-use.ts); authentication only calls it.
// Kept under this path for the modules that import it from here (server.ts, authenticate.ts,
// facade-credentials.ts), until they import it from src/application.
export { TokenUseRecorder } from '../../application/token-use.ts';
