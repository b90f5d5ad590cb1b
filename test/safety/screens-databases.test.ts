import { screensTests } from "./screens-run";

screensTests();
