import { useId, useState } from 'react';
import { useFieldArray, useWatch, type Control, type UseFormRegister } from 'react-hook-form';
import { FaPlus, FaTimes } from 'react-icons/fa';
import { toast } from '../../lib/toast';
import type { z } from 'zod';
import { errorText } from '../../lib/errors';
import { useZodForm } from '../../lib/forms';
import { useCreateProductMutation, type AdminCategory } from './api';
import { FIELD_TYPES, fieldName, productSchema, warnFirstProblem } from './forms';
import { ImageInput } from '../../components/ImageInput';
import { texts } from './texts';

type ProductForm = z.input<typeof productSchema>;

const EMPTY: ProductForm = {
  productName: '',
  price: '',
  image: null,
  categoryId: '',
  params: '',
  fields: [],
};

/** A product fulfilled by hand, in an existing category, with extra fields (spec §2 Create Product, §5). */
export function CreateProductForm({ categories }: { categories: AdminCategory[] }) {
  const [createProduct] = useCreateProductMutation();
  const form = useZodForm(productSchema, EMPTY);
  const extra = useFieldArray({ control: form.control, name: 'fields' });
  const [round, setRound] = useState(0);
  const helpId = useId();
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async (product) => {
    const category = categories.find((c) => c.id === product.categoryId);
    if (!category) return void toast.warning(texts.chooseCategory);
    const body = new FormData();
    body.append('productName', product.productName);
    body.append('price', product.price);
    body.append('params', product.params);
    body.append('category_name', category.category_name);
    body.append('parent_id', category.id);
    body.append('image', product.image);
    product.fields.forEach((f, i) => {
      body.append(`fields[${i}][fieldName]`, f.fieldName);
      body.append(`fields[${i}][fieldType]`, f.fieldType);
      body.append(`fields[${i}][fieldValue]`, f.fieldValue);
    });
    const answer = await createProduct(body);
    if ('error' in answer) {
      toast.error(
        errorText(answer.error, {
          failed: 'Failed to create product.',
          unreachable: texts.tryAgain,
          unexpected: texts.tryAgain,
        }),
      );
      return;
    }
    toast.success('Product created!');
    form.reset(EMPTY);
    setRound(round + 1);
  }, warnFirstProblem);

  return (
    <form className="catalog-form" onSubmit={submit} noValidate>
      <fieldset disabled={busy}>
        <label>
          Product Name
          <input autoComplete="off" {...form.register('productName')} />
        </label>
        <label>
          Price ($)
          <input type="number" min="0" step="any" inputMode="decimal" {...form.register('price')} />
        </label>
        <label>
          Additional Info (optional)
          <input autoComplete="off" aria-describedby={helpId} {...form.register('params')} />
          <span id={helpId} className="hint">
            Extra service information needed to activate the order, for example an account username. The
            customer is asked for it when ordering.
          </span>
        </label>
        <label>
          Category Name
          <select {...form.register('categoryId')}>
            <option value="">Select a category</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.category_name}
              </option>
            ))}
          </select>
        </label>
        <ImageInput
          key={round}
          label="Image"
          onChoose={(file) => form.setValue('image', file, { shouldDirty: true })}
        />
        {extra.fields.length > 0 && (
          <ul className="extra-fields" aria-label="Extra fields">
            {extra.fields.map((row, index) => (
              <ExtraField
                key={row.id}
                index={index}
                control={form.control}
                register={form.register}
                onTypeChange={() => form.setValue(`fields.${index}.fieldValue`, '')}
                onRemove={() => extra.remove(index)}
              />
            ))}
          </ul>
        )}
        <button
          type="button"
          className="button button--ghost"
          onClick={() => extra.append({ fieldName: '', fieldType: '', fieldValue: '' })}
        >
          <FaPlus className="icon" aria-hidden="true" /> Add New Field
        </button>
        <button type="submit" className="button button--wide">
          {busy ? 'Creating...' : 'Create Product'}
        </button>
      </fieldset>
    </form>
  );
}

interface ExtraFieldProps {
  index: number;
  control: Control<ProductForm>;
  register: UseFormRegister<ProductForm>;
  onTypeChange: () => void;
  onRemove: () => void;
}

/** One extra field: a name kept to letters, digits and _ as it is typed, a type, then its value. */
function ExtraField({ index, control, register, onTypeChange, onRemove }: ExtraFieldProps) {
  const type = useWatch({ control, name: `fields.${index}.fieldType` });
  const name = register(`fields.${index}.fieldName`);
  const typeSelect = register(`fields.${index}.fieldType`);
  const number = index + 1;
  return (
    <li className="extra-field">
      <label>
        Field name
        <input
          autoComplete="off"
          aria-label={`Field ${number} name`}
          {...name}
          onChange={(e) => {
            const input = e.currentTarget;
            const clean = fieldName(input.value);
            if (clean !== input.value) {
              // Same length, so the caret can stay where it was.
              const caret = input.selectionStart;
              input.value = clean;
              input.setSelectionRange(caret, caret);
            }
            return name.onChange(e);
          }}
        />
      </label>
      <label>
        Type
        <select
          aria-label={`Field ${number} type`}
          {...typeSelect}
          onChange={(e) => {
            onTypeChange();
            return typeSelect.onChange(e);
          }}
        >
          <option value="">Choose...</option>
          {FIELD_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      {type && (
        <label>
          Value
          <input
            type={type === 'NUMBER' ? 'number' : 'text'}
            step={type === 'NUMBER' ? 'any' : undefined}
            autoComplete="off"
            aria-label={`Field ${number} value`}
            {...register(`fields.${index}.fieldValue`)}
          />
        </label>
      )}
      <button
        type="button"
        className="icon-button icon-button--danger extra-field__remove"
        aria-label={`Remove field ${number}`}
        onClick={onRemove}
      >
        <FaTimes className="icon" aria-hidden="true" />
      </button>
    </li>
  );
}
