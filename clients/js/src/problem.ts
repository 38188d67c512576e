/**
 * The problem types streamgate answers with (RFC 9457 problem+json, `type` ending in one of
 * these names), as values an application can switch on.
 */
export const ProblemTypes = {
  BAD_REQUEST: 'bad-request',
  INVALID_PARAMETER: 'invalid-parameter',
  INVALID_CURSOR: 'invalid-cursor',
  INVALID_FILTER: 'invalid-filter',
  MODE_NOT_ALLOWED: 'mode-not-allowed',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  TOPIC_NOT_FOUND: 'topic-not-found',
  NOT_ACCEPTABLE: 'not-acceptable',
  TOO_MANY_REQUESTS: 'too-many-requests',
  KAFKA_UNAVAILABLE: 'kafka-unavailable',
  NOT_READY: 'not-ready',
  OVERLOADED: 'overloaded',
  SERVICE_UNAVAILABLE: 'service-unavailable',
  TOPIC_DELETED: 'topic-deleted',
  POSITION_UNKNOWN: 'position-unknown',
  POSITION_EXPIRED: 'position-expired',
  TOKEN_EXPIRED: 'token-expired',
  SHUTTING_DOWN: 'shutting-down',
  /** Not a server type: a snapshot patch that did not apply (the client resubscribes). */
  PATCH_FAILED: 'patch-failed',
} as const;

export type ProblemType = (typeof ProblemTypes)[keyof typeof ProblemTypes] | string;

/** Problems after which the stream goes on (the server sends the live events next). */
const INFORMATIONAL = new Set<string>([ProblemTypes.POSITION_EXPIRED, ProblemTypes.POSITION_UNKNOWN, ProblemTypes.PATCH_FAILED]);

/** Problems that a later attempt may not have: the client retries with backoff. */
const TRANSIENT = new Set<string>([
  ProblemTypes.TOO_MANY_REQUESTS, ProblemTypes.KAFKA_UNAVAILABLE, ProblemTypes.NOT_READY, ProblemTypes.OVERLOADED,
  ProblemTypes.SERVICE_UNAVAILABLE, ProblemTypes.SHUTTING_DOWN, ProblemTypes.TOKEN_EXPIRED, 'request-timeout',
  'internal-error',
]);

/** A problem the gateway reported, for a topic or for the connection. */
export class StreamgateProblem extends Error {
  /** The short type name, such as `topic-not-found` (see {@link ProblemTypes}). */
  readonly type: ProblemType;
  readonly status: number;
  readonly title: string;
  readonly detail?: string;
  /** The topic it concerns; undefined for the connection as a whole. */
  readonly topic?: string;
  /** The problem JSON as received. */
  readonly body: Record<string, unknown>;

  constructor(body: Record<string, unknown>, topic?: string) {
    const type = typeof body.type === 'string' ? body.type.substring(body.type.lastIndexOf('/') + 1) : 'about:blank';
    const title = typeof body.title === 'string' ? body.title : type;
    super(typeof body.detail === 'string' ? `${title}: ${body.detail}` : title);
    this.name = 'StreamgateProblem';
    this.type = type;
    this.status = typeof body.status === 'number' ? body.status : 0;
    this.title = title;
    this.detail = typeof body.detail === 'string' ? body.detail : undefined;
    this.topic = topic;
    this.body = body;
  }

  /** Whether the subscription goes on after it. */
  get informational(): boolean {
    return INFORMATIONAL.has(this.type);
  }

  /** Whether the client tries again (with backoff) rather than end the subscription. */
  get transient(): boolean {
    return TRANSIENT.has(this.type) || this.status >= 500;
  }
}
