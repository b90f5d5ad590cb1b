import { rankedWalkTests } from "./ranked-walk-run";

rankedWalkTests();
