import { dollarAmount, sanitizeFieldName, toMicros, z } from '@raseed/kit';

/** The spec's texts (§5, §8) that the server answers too. */
export const texts = {
  fillAll: 'Please fill all fields and upload an image.',
  chooseCategory: 'Select an existing category or create one first.',
  invalidPrice: 'Please enter a valid number for the price',
  enterPercentage: 'Please enter a percentage',
  invalidPercentage: 'Please enter a valid percentage',
  selectImage: 'Please select an image to upload.',
  categoryCreated: 'Category created!',
  productCreated: 'Product created!',
  productUpdated: 'Product updated successfully!',
  productDeleted: 'Product deleted successfully!',
  percentageUpdated: 'Percentage updated successfully',
  customProductUpdated: 'Product updated successfully',
  categoryUpdated: 'Category updated successfully.',
  productNotFound: 'Product not found',
  categoryNotFound: 'Category not found',
  customProductMissing: (name: string) => `Custom product data not found for ${name}.`,
  sectionUnknown: 'Choose one of the sections or an existing category.',
  sectionNotFound: 'Section not found',
  sectionImageSet: 'Section image updated.',
  sectionImageReset: 'The section shows our artwork again.',
} as const;

export const MAX_PRICE = toMicros(100_000);
const NAME_MAX = 80;

/** A required text field of a form: blank or missing answers the form's one warning. */
const filled = (message: string, max = NAME_MAX) =>
  z
    .string({ required_error: message, invalid_type_error: message })
    .trim()
    .min(1, message)
    .max(max, `At most ${max} characters, please.`);

const price = (required: string, invalid: string) =>
  dollarAmount({ required, invalid }, MAX_PRICE, { allowZero: true });

const field = z.object({
  fieldName: filled('Every extra field needs a name.', 50).transform(sanitizeFieldName),
  fieldType: z.enum(['TEXT', 'NUMBER'], {
    errorMap: () => ({ message: 'Choose TEXT or NUMBER for every extra field.' }),
  }),
  fieldValue: z.string().trim().max(500).default(''),
});

export const createCategorySchema = z.object({
  categoryName: filled(texts.fillAll),
  section: filled(texts.fillAll),
});

export const createProductSchema = z
  .object({
    productName: filled(texts.fillAll),
    price: price(texts.fillAll, texts.invalidPrice),
    params: z.string().trim().max(NAME_MAX).optional(),
    category_name: filled(texts.chooseCategory),
    parent_id: z.string().trim().max(100).optional(),
    fields: z.array(field).max(20).default([]),
  })
  .superRefine((product, ctx) => {
    for (const f of product.fields) {
      if (f.fieldType === 'NUMBER' && f.fieldValue !== '' && !Number.isFinite(Number(f.fieldValue))) {
        ctx.addIssue({ code: 'custom', message: `${f.fieldName} must be a number.` });
      }
    }
  });

export const priceEditSchema = z.object({ price: price(texts.invalidPrice, texts.invalidPrice) });

export const availabilitySchema = z.object({
  available: z.boolean({
    required_error: 'available must be true or false',
    invalid_type_error: 'available must be true or false',
  }),
});

/** A profit percentage: digits with at most one decimal point (spec §5), 2 decimals kept. */
export const profitPercentField = z
  .union([z.string(), z.number()], {
    required_error: texts.enterPercentage,
    invalid_type_error: texts.enterPercentage,
  })
  .transform((v) => String(v).trim())
  .refine((v) => v !== '', texts.enterPercentage)
  .refine((v) => /^\d{1,4}(\.\d{0,2})?$/.test(v), texts.invalidPercentage)
  .transform(Number);

export const globalProfitSchema = z.object({ percentage: profitPercentField });

export const customProductEditSchema = z.object({
  product_name: filled(texts.productNotFound, 200),
  percentage: profitPercentField.optional(),
});

export const categoryPageQuery = z.object({
  search: z.string().max(100).optional(),
});
