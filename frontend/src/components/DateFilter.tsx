import { useState } from 'react';
import { today } from '../lib/format';

export interface DateRange {
  from: string;
  to: string;
}

export const todayRange = (): DateRange => ({ from: today(), to: today() });

interface DateFilterProps {
  onSearch: (range: DateRange) => void;
  /** Where the filter starts and what Reset returns to: today unless told otherwise. */
  initial?: DateRange;
}

/** From/To dates with Search and Reset; the server reads whole days. */
export function DateFilter({ onSearch, initial = todayRange() }: DateFilterProps) {
  const [range, setRange] = useState(initial);
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
          max={range.to || undefined}
          onChange={(e) => setRange({ ...range, from: e.target.value })}
        />
      </label>
      <label>
        To
        <input
          type="date"
          value={range.to}
          min={range.from || undefined}
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
          setRange(initial);
          onSearch(initial);
        }}
      >
        Reset
      </button>
    </form>
  );
}
