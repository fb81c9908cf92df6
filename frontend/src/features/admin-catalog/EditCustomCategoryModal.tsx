import { useState } from 'react';
import { toast } from 'react-toastify';
import { Modal } from '../../components/Modal';
import { Picture } from '../../components/Picture';
import { errorText } from '../../lib/errors';
import { useEditCustomCategoryMutation, type CustomCategory } from './api';
import { ImageInput } from '../../components/ImageInput';
import { texts } from './texts';

interface EditCustomCategoryModalProps {
  category: CustomCategory | null;
  onClose: () => void;
}

/** A new picture for a supplier category (spec §2 Api Categories, §5 Category image edit). */
export function EditCustomCategoryModal({ category, onClose }: EditCustomCategoryModalProps) {
  const [image, setImage] = useState<File | null>(null);
  const [editCustomCategory, { isLoading: saving }] = useEditCustomCategoryMutation();
  if (!category) return null;

  const save = async () => {
    if (!image) return void toast.warning(texts.selectImage);
    const body = new FormData();
    body.append('image', image);
    const answer = await editCustomCategory({ id: category.id, body });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Failed to update category.' }));
      return;
    }
    toast.success('Category updated successfully.');
    onClose();
  };

  return (
    <Modal open title="Edit Category" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2 dir="auto">{category.name}</h2>
        <Picture className="current-image" src={category.image} alt={`Current image of ${category.name}`} />
        <fieldset disabled={saving}>
          <ImageInput label="New image" onChoose={setImage} />
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
