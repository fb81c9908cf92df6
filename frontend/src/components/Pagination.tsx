interface PaginationProps {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
}

const WINDOW = 2;

/** The pages around the current one (± 2), plus the first and the last (spec §9). */
export function pageNumbers(page: number, totalPages: number): number[] {
  const pages = new Set([1, totalPages]);
  for (let p = page - WINDOW; p <= page + WINDOW; p++) if (p >= 1 && p <= totalPages) pages.add(p);
  return [...pages].sort((a, b) => a - b);
}

/** Previous, the numbered pages and Next (spec §2 My Payments). */
export function Pagination({ page, totalPages, onPage }: PaginationProps) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pagination" aria-label="Pages">
      <button
        type="button"
        className="pagination__step"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      {pageNumbers(page, totalPages).map((p) => (
        <button
          key={p}
          type="button"
          className={p === page ? 'pagination__page pagination__page--current' : 'pagination__page'}
          aria-current={p === page ? 'page' : undefined}
          onClick={() => onPage(p)}
        >
          {p}
        </button>
      ))}
      <button
        type="button"
        className="pagination__step"
        disabled={page >= totalPages}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
