import { feedFilterTests } from "./feed-run";

feedFilterTests();
