/** Types of plan.mjs: the walk's table, page by page. */
import type { PlanStep } from "./blocks.mjs";
export declare const PLAN: Record<string, readonly PlanStep[]>;
