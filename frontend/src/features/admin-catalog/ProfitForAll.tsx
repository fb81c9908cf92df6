import { useState } from 'react';
import { toast } from '../../lib/toast';
import { useSetProfitForAllMutation } from './api';
import { ProfitInput } from './ProfitInput';
import { serverText, texts } from './texts';

/** One profit percentage for every supplier product at once (spec §2 Api Products). */
export function ProfitForAll() {
  const [percentage, setPercentage] = useState('');
  const [setProfitForAll, { isLoading: saving }] = useSetProfitForAllMutation();

  const submit = async () => {
    if (!percentage.trim()) return void toast.warning(texts.enterPercentage);
    const answer = await setProfitForAll({ percentage });
    if ('error' in answer) {
      toast.error(serverText(answer.error));
      return;
    }
    toast.success('Percentage updated successfully');
    setPercentage('');
  };

  return (
    <form
      className="toolbar"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label className="toolbar__field">
        Profit % for all products
        <ProfitInput value={percentage} onChange={setPercentage} placeholder="e.g. 10" disabled={saving} />
      </label>
      <button type="submit" className="button" disabled={saving}>
        Update Profit % For All
      </button>
    </form>
  );
}
