// now is the monotonic clock in nanoseconds (a BigInt); since(t0) is the time from t0 to now as a Number.
export const now = process.hrtime.bigint;
export const since = (t0) => Number(process.hrtime.bigint() - t0);
