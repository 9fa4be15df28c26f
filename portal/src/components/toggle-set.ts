// A set the reader adds an item to, or takes it from, one click at a time: the ledger groups opened, the
// events a webhook subscriber is chosen for.
import { useState } from 'react';

export function useToggleSet<T>() {
  const [items, setItems] = useState<ReadonlySet<T>>(new Set());
  const toggle = (item: T) =>
    setItems((before) => {
      const next = new Set(before);
      if (!next.delete(item)) next.add(item);
      return next;
    });
  return { items, toggle, clear: () => setItems(new Set()) };
}
