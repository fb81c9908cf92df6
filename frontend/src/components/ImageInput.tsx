import { imageProblem } from '@raseed/forms';
import { toast } from 'react-toastify';

interface ImageInputProps {
  label: string;
  onChoose: (file: File | null) => void;
}

/**
 * A picture picker that refuses what the store will not take (type, 3 MB) and clears
 * itself (spec §5 Image upload). The server checks the content again.
 */
export function ImageInput({ label, onChoose }: ImageInputProps) {
  return (
    <label>
      {label}
      <input
        type="file"
        accept="image/jpeg,image/png,image/webp"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0] ?? null;
          const problem = file && imageProblem(file);
          if (problem) {
            toast.warning(problem);
            e.currentTarget.value = '';
            onChoose(null);
          } else onChoose(file);
        }}
      />
    </label>
  );
}
