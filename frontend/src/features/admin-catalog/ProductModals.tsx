import { toast } from '../../lib/toast';
import { TextField } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { dollars } from '../../lib/format';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useDeleteProductMutation, useUpdateProductPriceMutation, type CreatedProduct } from './api';
import { priceSchema } from './forms';

interface ProductModalProps {
  product: CreatedProduct | null;
  onClose: () => void;
}

/** A created product's new price (spec §2 Create home, §5 Edit price); keyed by product. */
export function EditPriceModal({ product, onClose }: ProductModalProps) {
  const [updatePrice] = useUpdateProductPriceMutation();
  const form = useZodForm(priceSchema, { price: '' });
  const busy = form.formState.isSubmitting;
  if (!product) return null;

  const submit = form.handleSubmit(async ({ price }) => {
    const answer = await updatePrice({ id: product.id, price });
    if ('error' in answer) {
      toast.error('Error updating product');
      return;
    }
    toast.success('Product updated successfully!');
    onClose();
  }, warnFirst);

  return (
    <Modal open title="Edit price" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <h2 dir="auto">{product.product_name}</h2>
        <p className="modal__text">
          Current price: <strong>{dollars(product.price)}</strong>
        </p>
        <fieldset disabled={busy}>
          <TextField
            label="New price ($)"
            type="number"
            min="0"
            step="any"
            inputMode="decimal"
            autoFocus
            {...form.field('price')}
          />
          <div className="modal__actions">
            <button type="button" className="button button--ghost" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="button">
              Save
            </button>
          </div>
        </fieldset>
      </form>
    </Modal>
  );
}

/** Asks before deleting a created product (spec §2 Create home). */
export function DeleteProductModal({ product, onClose }: ProductModalProps) {
  const [deleteProduct, { isLoading: deleting }] = useDeleteProductMutation();
  if (!product) return null;

  const confirm = async () => {
    const answer = await deleteProduct(product.id);
    if ('error' in answer) {
      toast.error('Error deleting product');
      return;
    }
    toast.success('Product deleted successfully!');
    onClose();
  };

  return (
    <Modal open title="Delete product" onClose={onClose}>
      <h2 dir="auto">{product.product_name}</h2>
      <p className="modal__text">Are you sure you want to delete this product?</p>
      <div className="modal__actions">
        <button type="button" className="button button--ghost" onClick={onClose} disabled={deleting}>
          Cancel
        </button>
        <button
          type="button"
          className="button button--danger"
          onClick={() => void confirm()}
          disabled={deleting}
        >
          Delete
        </button>
      </div>
    </Modal>
  );
}
