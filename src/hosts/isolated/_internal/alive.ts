/**
 * Whether a process with this id exists: the test the folder sweeps use to tell a dead bridge's folder from a live
 * one's. EPERM means it exists but belongs to another user.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
