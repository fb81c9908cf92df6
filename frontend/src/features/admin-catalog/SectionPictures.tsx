import { useState } from 'react';
import { toast } from '../../lib/toast';
import { SectionPicture } from '../../components/SectionPicture';
import { Spinner } from '../../components/Spinner';
import { errorText } from '../../lib/errors';
import { useHomeSectionsQuery, useResetSectionPictureMutation, type HomeSection } from './api';
import { EditSectionPictureModal } from './EditSectionPictureModal';
import { sectionTexts } from './texts';

/** The six home sections with the picture each shows: an admin's own, or the store's artwork. */
export function SectionPictures() {
  const sections = useHomeSectionsQuery();
  const [editing, setEditing] = useState<HomeSection | null>(null);
  const [resetSectionPicture, { isLoading: resetting }] = useResetSectionPictureMutation();

  const backToArtwork = async (name: string) => {
    const answer = await resetSectionPicture(name);
    if ('error' in answer) toast.error(errorText(answer.error, { failed: sectionTexts.failed }));
    else toast.success(sectionTexts.reset);
  };

  if (sections.isLoading) return <Spinner />;
  if (sections.isError)
    return (
      <p className="note note--error">{errorText(sections.error, { failed: sectionTexts.loadFailed })}</p>
    );
  return (
    <>
      <ul className="grid grid--wide section-pictures" aria-label="Section images">
        {(sections.data ?? []).map((s) => (
          <li key={s.name} className="card card--static section-picture">
            <SectionPicture className="card__image" name={s.name} customImage={s.custom_image} />
            <span className="card__name" dir="auto">
              {s.name}
            </span>
            <span className="hint">{s.custom_image ? 'Your image' : 'Our artwork'}</span>
            <div className="section-picture__actions">
              <button
                type="button"
                className="button"
                aria-label={`Replace image of ${s.name}`}
                onClick={() => setEditing(s)}
              >
                Replace
              </button>
              {s.custom_image && (
                <button
                  type="button"
                  className="button button--ghost"
                  aria-label={`Use our artwork for ${s.name}`}
                  disabled={resetting}
                  onClick={() => void backToArtwork(s.name)}
                >
                  Use our artwork
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <EditSectionPictureModal key={editing?.name} section={editing} onClose={() => setEditing(null)} />
    </>
  );
}
