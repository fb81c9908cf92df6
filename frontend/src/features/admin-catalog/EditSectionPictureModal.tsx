import { SectionPicture } from '../../components/SectionPicture';
import { useSetSectionPictureMutation, type HomeSection } from './api';
import { ReplaceImageModal } from './ReplaceImageModal';
import { sectionTexts } from './texts';

interface EditSectionPictureModalProps {
  section: HomeSection | null;
  onClose: () => void;
}

/** A picture of the admin's own for a home section, in place of the store's artwork. */
export function EditSectionPictureModal({ section, onClose }: EditSectionPictureModalProps) {
  const [setSectionPicture, { isLoading: saving }] = useSetSectionPictureMutation();
  if (!section) return null;
  return (
    <ReplaceImageModal
      title="Section image"
      name={section.name}
      current={
        <SectionPicture className="current-image" name={section.name} customImage={section.custom_image} />
      }
      send={(body) => setSectionPicture({ name: section.name, body })}
      saving={saving}
      failed={sectionTexts.failed}
      done={sectionTexts.updated}
      onClose={onClose}
    />
  );
}
