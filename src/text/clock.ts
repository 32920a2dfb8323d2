// A moment by the local wall clock, for a phrase a user reads: `16:50`, or
// `Dec 5 16:50` when the day must be said too. Each caller says when it must.

export function localClock(at: number, withDate: boolean): string {
  const d = new Date(at);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return withDate ? `${d.toLocaleString('en-US', { month: 'short' })} ${d.getDate()} ${hm}` : hm;
}
