export { createTestBridge, type TestBridge, type TestBridgeOptions } from "./test-bridge.js";
