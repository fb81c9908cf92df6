import { imageProblem } from '@raseed/forms';
import { useState } from 'react';
import { toast } from '../lib/toast';
import { Field } from './Field';

interface ImageInputProps {
  label: string;
  onChoose: (file: File | null) => void;
  /** The form's problem with this field, such as a missing picture. */
  error?: string;
}

/**
 * A picture picker that refuses what the store will not take (type, 3 MB) and clears
 * itself (spec §5 Image upload), saying why at the field too. The server checks the content again.
 */
export function ImageInput({ label, onChoose, error }: ImageInputProps) {
  const [problem, setProblem] = useState<string>();
  return (
    <Field label={label} error={problem ?? error}>
      {(control) => (
        <input
          {...control}
          type="file"
          accept="image/jpeg,image/png,image/webp"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0] ?? null;
            const refused = file ? imageProblem(file) : undefined;
            setProblem(refused);
            if (refused) {
              toast.warning(refused);
              e.currentTarget.value = '';
              onChoose(null);
            } else onChoose(file);
          }}
        />
      )}
    </Field>
  );
}
