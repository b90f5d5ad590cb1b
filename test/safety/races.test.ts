import { raceTests } from "./races-run";

raceTests();
