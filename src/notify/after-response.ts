import { createServices, type Services } from "../lib/services";

/** What a request hands the work it leaves for after its response. */
export type RequestServices = Pick<Services, "env" | "events" | "waitUntil">;

/**
 * Runs `work` after the response with services of its own, closed when it is done: the request's
 * Postgres pool is closed as the response leaves, and one opened after that would never be.
 */
export async function afterResponse<T>(request: RequestServices, work: (services: Services) => Promise<T>): Promise<T> {
  const { services, close } = createServices(request.env, request, request.events);
  try {
    return await work(services);
  } finally {
    await close();
  }
}
