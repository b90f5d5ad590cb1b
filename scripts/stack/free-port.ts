import { createServer, type AddressInfo } from "node:net";

/** Asks the OS for a free TCP port on 127.0.0.1 (for servers that need a port up front). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
