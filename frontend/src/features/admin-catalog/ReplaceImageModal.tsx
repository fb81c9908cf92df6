import { useState, type ReactNode } from 'react';
import { toast } from '../../lib/toast';
import { ImageInput } from '../../components/ImageInput';
import { Modal } from '../../components/Modal';
import { errorText } from '../../lib/errors';
import { texts } from './texts';

interface ReplaceImageModalProps {
  title: string;
  /** What the image is of, shown as the form's heading. */
  name: string;
  /** The image shown now. */
  current: ReactNode;
  /** Sends the chosen image (multipart `image`); answers RTK Query's result. */
  send: (body: FormData) => Promise<{ error?: unknown }>;
  saving: boolean;
  /** The toasts after a failure and after a success. */
  failed: string;
  done: string;
  onClose: () => void;
}

/** The current image of something in the catalogue, and a new one to put in its place. */
export function ReplaceImageModal({
  title,
  name,
  current,
  send,
  saving,
  failed,
  done,
  onClose,
}: ReplaceImageModalProps) {
  const [image, setImage] = useState<File | null>(null);

  const save = async () => {
    if (!image) return void toast.warning(texts.selectImage);
    const body = new FormData();
    body.append('image', image);
    const answer = await send(body);
    if (answer.error) {
      toast.error(errorText(answer.error, { failed }));
      return;
    }
    toast.success(done);
    onClose();
  };

  return (
    <Modal open title={title} onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2 dir="auto">{name}</h2>
        {current}
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
