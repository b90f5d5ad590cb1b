import { readsTests } from "./reads-run";

readsTests();
