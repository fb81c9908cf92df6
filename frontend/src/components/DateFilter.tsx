import { useState } from 'react';
import { today } from '../lib/format';

export interface DateRange {
  from: string;
  to: string;
}

export const todayRange = (): DateRange => ({ from: today(), to: today() });

/** From/To dates (default today) with Search and Reset; the server reads whole days. */
export function DateFilter({ onSearch }: { onSearch: (range: DateRange) => void }) {
  const [range, setRange] = useState(todayRange);
  return (
    <form
      className="date-filter"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(range);
      }}
    >
      <label>
        From
        <input
          type="date"
          value={range.from}
          max={range.to}
          onChange={(e) => setRange({ ...range, from: e.target.value })}
        />
      </label>
      <label>
        To
        <input
          type="date"
          value={range.to}
          min={range.from}
          onChange={(e) => setRange({ ...range, to: e.target.value })}
        />
      </label>
      <button type="submit" className="button">
        Search
      </button>
      <button
        type="button"
        className="button button--ghost"
        onClick={() => {
          setRange(todayRange());
          onSearch(todayRange());
        }}
      >
        Reset
      </button>
    </form>
  );
}
