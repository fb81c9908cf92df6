import { useState } from 'react';
import { toast } from '../../lib/toast';
import { Modal } from '../../components/Modal';
import { useEditCustomProductMutation, type CustomProduct, type SupplierProduct } from './api';
import { Details } from '../../components/Details';
import { ImageInput } from '../../components/ImageInput';
import { ProfitInput } from './ProfitInput';
import { profitMultiplier, supplierDollars, withProfit } from './pricing';
import { serverText } from './texts';

/** A supplier product with its custom record and the price customers see before a discount. */
export interface PricedProduct extends SupplierProduct {
  custom: CustomProduct | null;
  shownPrice: number;
}

interface EditSupplierProductModalProps {
  product: PricedProduct | null;
  onClose: () => void;
}

/** 'Edit Product': a supplier product's own profit percentage and image (spec §2 Api Products, §5). */
export function EditSupplierProductModal({ product, onClose }: EditSupplierProductModalProps) {
  const [percentage, setPercentage] = useState('');
  const [image, setImage] = useState<File | null>(null);
  const [editCustomProduct, { isLoading: saving }] = useEditCustomProductMutation();
  if (!product?.custom) return null;
  const { custom } = product;
  // Until a whole number is typed ('' or '.'), the new price is the current one.
  const typed = percentage ? Number(percentage) : NaN;
  const newPrice = Number.isFinite(typed)
    ? withProfit(product.price, profitMultiplier(typed))
    : product.shownPrice;

  const save = async () => {
    const body = new FormData();
    body.append('product_name', custom.product_name);
    if (percentage) body.append('percentage', percentage);
    if (image) body.append('image', image);
    const answer = await editCustomProduct(body);
    if ('error' in answer) {
      toast.error(serverText(answer.error));
      return;
    }
    toast.success('Product updated successfully');
    onClose();
  };

  return (
    <Modal open title="Edit Product" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2>Edit Product</h2>
        <label>
          Name
          <input readOnly value={product.name} dir="auto" />
        </label>
        <Details
          items={[
            ['Original API price', supplierDollars(product.price)],
            ['Original profit percentage', `${custom.profit_percent.toFixed(2)}%`],
            ['Current price after profit', supplierDollars(product.shownPrice)],
          ]}
        />
        <fieldset disabled={saving}>
          <label>
            New Profit %
            <ProfitInput
              autoFocus
              value={percentage}
              onChange={setPercentage}
              placeholder={custom.profit_percent.toFixed(2)}
            />
          </label>
          <p className="modal__text">
            New price: <strong data-testid="new-price">{supplierDollars(newPrice)}</strong>
          </p>
          <ImageInput label="Image" onChoose={setImage} />
          <div className="modal__actions">
            <button type="submit" className="button">
              Save
            </button>
            <button type="button" className="button button--ghost" onClick={onClose}>
              Close
            </button>
          </div>
        </fieldset>
      </form>
    </Modal>
  );
}
