import type { FastifyReply } from 'fastify';
import type { IssuedToken } from '../../../application/access/tokens.use-case.ts';
import { tokenView } from '../../schemas/token.schema.ts';

/** A token just issued or rotated: its view, with the secret shown this once. */
export const issuedView = ({ token, secret }: IssuedToken) => tokenView(token, secret);

/** The answer to a token's issuing: 201 with its view. */
export const answerIssued = (reply: FastifyReply, issued: IssuedToken) => reply.code(201).send(issuedView(issued));
