import { Picture } from '../../components/Picture';
import { useEditCustomCategoryMutation, type CustomCategory } from './api';
import { ReplaceImageModal } from './ReplaceImageModal';

interface EditCustomCategoryModalProps {
  category: CustomCategory | null;
  onClose: () => void;
}

/** A new picture for a supplier category (spec §2 Api Categories, §5 Category image edit). */
export function EditCustomCategoryModal({ category, onClose }: EditCustomCategoryModalProps) {
  const [editCustomCategory, { isLoading: saving }] = useEditCustomCategoryMutation();
  if (!category) return null;
  return (
    <ReplaceImageModal
      title="Edit Category"
      name={category.name}
      current={
        <Picture className="current-image" src={category.image} alt={`Current image of ${category.name}`} />
      }
      send={(body) => editCustomCategory({ id: category.id, body })}
      saving={saving}
      failed="Failed to update category."
      done="Category updated successfully."
      onClose={onClose}
    />
  );
}
