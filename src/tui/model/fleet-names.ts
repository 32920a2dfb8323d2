// How other machines' things are named to a person, wherever they are shown
// or answered: a request `b:12` (what `orcr approve` takes), this machine's
// `#12`. Pure, below the store and the view.

/** `#12` here, `b:12` of another machine (its `ref`). */
export const requestLabel = (r: { id: number; ref?: string }): string => r.ref ?? `#${r.id}`;
