/** HMAC-SHA256 with Node's own crypto (the event lines' MACs: event-auth.ts), for the Node backends. */
import { createHmac } from "node:crypto";
import type { HmacSha256 } from "./event-auth";

/** HMAC-SHA256 of `data` under `key`, by Node's crypto (several times faster than the plain JavaScript one). */
export const nodeHmacSha256: HmacSha256 = (key, data) => createHmac("sha256", key).update(data).digest();
