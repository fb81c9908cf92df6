import { useState } from 'react';
import { toast } from '../../lib/toast';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useCreateCategoryMutation } from './api';
import { categorySchema, SECTION_NAMES } from './forms';
import { Field, TextField } from '../../components/Field';
import { ImageInput } from '../../components/ImageInput';
import { texts } from './texts';

/** A new category in one of the six sections (spec §2 Create Category, §5). */
export function CreateCategoryForm() {
  const [createCategory] = useCreateCategoryMutation();
  const form = useZodForm(categorySchema, { categoryName: '', section: '', image: null });
  // A new round after each creation clears the file picker, which the form cannot reset.
  const [round, setRound] = useState(0);
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async ({ categoryName, section, image }) => {
    const body = new FormData();
    body.append('categoryName', categoryName);
    body.append('section', section);
    body.append('image', image);
    const answer = await createCategory(body);
    if ('error' in answer) {
      toast.error(
        errorText(answer.error, {
          failed: 'Failed to create category.',
          unreachable: texts.tryAgain,
          unexpected: texts.tryAgain,
        }),
      );
      return;
    }
    toast.success('Category created!');
    form.reset();
    setRound(round + 1);
  }, warnFirst);

  return (
    <form className="catalog-form" onSubmit={submit} noValidate>
      <fieldset disabled={busy}>
        <TextField label="Category Name" autoComplete="off" {...form.field('categoryName')} />
        <Field label="Section" error={form.errorOf('section')}>
          {(control) => (
            <select {...form.register('section')} {...control}>
              <option value="">Select a section</option>
              {SECTION_NAMES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ImageInput
          key={round}
          label="Image"
          error={form.errorOf('image')}
          onChoose={(file) =>
            form.setValue('image', file, { shouldDirty: true, shouldValidate: form.formState.isSubmitted })
          }
        />
        <button type="submit" className="button button--wide">
          {busy ? 'Creating...' : 'Create Category'}
        </button>
      </fieldset>
    </form>
  );
}
