import { suspensionTests } from "./suspension-run";

suspensionTests();
