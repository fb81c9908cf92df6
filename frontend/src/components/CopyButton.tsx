import { useEffect, useState } from 'react';
import { FaCheck, FaCopy } from 'react-icons/fa';
import { toast } from '../lib/toast';

const COPIED_MS = 2000;

/** The clipboard API where the page may use it (https or localhost), else the older copy command. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

/** Copies a value to the clipboard, then says 'Copied' for two seconds; `what` names it for screen readers. */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <>
      <button
        type="button"
        className="button button--ghost button--small"
        onClick={async () => {
          if (await copyText(text)) setCopied(true);
          else toast.error('Could not copy. Select the text and copy it.');
        }}
      >
        {copied ? <FaCheck aria-hidden="true" /> : <FaCopy aria-hidden="true" />}
        {copied ? 'Copied' : 'Copy'}
        <span className="visually-hidden"> {what}</span>
      </button>
      <span className="visually-hidden" role="status">
        {copied ? `${what} copied` : ''}
      </span>
    </>
  );
}
