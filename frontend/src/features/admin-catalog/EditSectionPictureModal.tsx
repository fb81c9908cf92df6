import { useState } from 'react';
import { toast } from 'react-toastify';
import { ImageInput } from '../../components/ImageInput';
import { Modal } from '../../components/Modal';
import { SectionPicture } from '../../components/SectionPicture';
import { errorText } from '../../lib/errors';
import { useSetSectionPictureMutation, type HomeSection } from './api';
import { sectionTexts, texts } from './texts';

interface EditSectionPictureModalProps {
  section: HomeSection | null;
  onClose: () => void;
}

/** A picture of the admin's own for a home section, in place of the store's artwork. */
export function EditSectionPictureModal({ section, onClose }: EditSectionPictureModalProps) {
  const [image, setImage] = useState<File | null>(null);
  const [setSectionPicture, { isLoading: saving }] = useSetSectionPictureMutation();
  if (!section) return null;

  const save = async () => {
    if (!image) return void toast.warning(texts.selectImage);
    const body = new FormData();
    body.append('image', image);
    const answer = await setSectionPicture({ name: section.name, body });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: sectionTexts.failed }));
      return;
    }
    toast.success(sectionTexts.updated);
    onClose();
  };

  return (
    <Modal open title="Section image" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2 dir="auto">{section.name}</h2>
        <SectionPicture className="current-image" name={section.name} customImage={section.custom_image} />
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
