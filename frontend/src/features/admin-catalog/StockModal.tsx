import { useState } from 'react';
import { toast } from '../../lib/toast';
import { Field } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { errorText } from '../../lib/errors';
import { displayTime } from '../../lib/format';
import {
  useAddCodesMutation,
  useProductStockQuery,
  useSaveStockSettingsMutation,
  type CreatedProduct,
  type StockSettings,
} from './api';

/**
 * A created product's stock of codes: its counts, the newest codes (masked: a code is never
 * shown whole in the back office), its last uploads, and a form to paste or upload more.
 */
export function StockModal({ product, onClose }: { product: CreatedProduct | null; onClose: () => void }) {
  if (!product) return null;
  return (
    <Modal open title={`Codes of ${product.product_name}`} onClose={onClose}>
      <Stock product={product} onClose={onClose} />
    </Modal>
  );
}

/** When the stock counts as low, and what the store does once it is out. */
function Settings({ productId, saved }: { productId: string; saved: StockSettings }) {
  const [threshold, setThreshold] = useState(String(saved.low_stock_threshold));
  const [manual, setManual] = useState(saved.manual_when_out);
  const [problem, setProblem] = useState<string>();
  const [save, saving] = useSaveStockSettingsMutation();

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const low = Number(threshold);
    if (!/^\d+$/.test(threshold.trim()) || low > 10_000) {
      return setProblem('Enter a whole number of codes from 0 to 10,000.');
    }
    setProblem(undefined);
    const answer = await save({ productId, settings: { low_stock_threshold: low, manual_when_out: manual } });
    if ('error' in answer) {
      return setProblem(
        errorText(answer.error, { failed: 'The settings could not be saved. Please try again.' }),
      );
    }
    toast.success(answer.data.message);
  }

  return (
    <form className="stock__settings" onSubmit={submit} noValidate>
      <fieldset disabled={saving.isLoading}>
        <legend>When stock runs low</legend>
        <Field label="E-mail the admins at this many codes left (0: never)" error={problem}>
          {(control) => (
            <input
              {...control}
              type="number"
              inputMode="numeric"
              min={0}
              max={10000}
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
            />
          )}
        </Field>
        <label className="stock__manual">
          <input type="checkbox" checked={manual} onChange={(e) => setManual(e.target.checked)} />
          Out of stock, keep it on sale: orders wait for an admin
        </label>
        <button type="submit" className="button button--ghost">
          {saving.isLoading ? 'Saving...' : 'Save settings'}
        </button>
      </fieldset>
    </form>
  );
}

function Stock({ product, onClose }: { product: CreatedProduct; onClose: () => void }) {
  const stock = useProductStockQuery(product.id);
  const [addCodes, adding] = useAddCodesMutation();
  const [pasted, setPasted] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string>();

  async function upload(event: React.FormEvent) {
    event.preventDefault();
    const codes = file ?? (pasted.trim() ? new Blob([pasted], { type: 'text/plain' }) : null);
    if (!codes) return setProblem('Paste codes or choose a file.');
    setProblem(undefined);
    const answer = await addCodes({ productId: product.id, file: codes });
    if ('error' in answer) {
      return setProblem(
        errorText(answer.error, { failed: 'The codes could not be added. Please try again.' }),
      );
    }
    const { added, duplicates, blank } = answer.data;
    toast.success(`${added} codes added (${duplicates} already in stock, ${blank} blank lines).`);
    setPasted('');
    setFile(null);
  }

  return (
    <div className="stock">
      <h2 dir="auto">Codes of {product.product_name}</h2>
      {stock.isLoading ? (
        <Spinner />
      ) : stock.isError ? (
        <p className="note note--error">Failed to fetch the stock. Please try again.</p>
      ) : (
        <>
          <p className="stock__counts" data-testid="stock-counts">
            Available: <strong>{stock.data!.stock.available}</strong> · Sold:{' '}
            <strong>{stock.data!.stock.sold}</strong> · Expired: <strong>{stock.data!.stock.expired}</strong>
          </p>
          {stock.data!.codes.length > 0 && (
            <ul className="stock__codes" aria-label="Newest codes">
              {stock.data!.codes.map((c) => (
                <li key={c.id}>
                  <span dir="ltr">{c.mask}</span>{' '}
                  <span
                    className={`status status--${c.state === 'sold' ? 'confirmed' : c.state === 'expired' ? 'rejected' : 'waiting'}`}
                  >
                    {c.state}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {stock.data!.batches.length > 0 && (
            <p className="modal__text">
              Last upload: {stock.data!.batches[0]!.added} codes by {stock.data!.batches[0]!.by},{' '}
              {displayTime(stock.data!.batches[0]!.at)}
            </p>
          )}
          <Settings productId={product.id} saved={stock.data!.settings} />
        </>
      )}
      <form onSubmit={upload} noValidate>
        <fieldset disabled={adding.isLoading}>
          <Field label="Paste codes (one a line: code, serial, PIN, expiry YYYY-MM-DD)" error={problem}>
            {(control) => (
              <textarea
                {...control}
                rows={5}
                value={pasted}
                onChange={(e) => setPasted(e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
          <Field label="Or upload a text or CSV file">
            {(control) => (
              <input
                {...control}
                type="file"
                accept=".txt,.csv,text/plain,text/csv"
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              />
            )}
          </Field>
          <div className="modal__actions">
            <button type="button" className="button button--ghost" onClick={onClose}>
              Close
            </button>
            <button type="submit" className="button">
              {adding.isLoading ? 'Adding...' : 'Add codes'}
            </button>
          </div>
        </fieldset>
      </form>
    </div>
  );
}
