/** A background job (mail outbox, …) that the server starts and stops with the process. */
export interface Worker {
  name: string;
  start(): void;
  /** Resolves when the worker has finished what it was doing. */
  stop(): Promise<void>;
}
