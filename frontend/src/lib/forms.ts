import { zodResolver } from '@hookform/resolvers/zod';
import { useForm, type FieldErrors, type FieldValues } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';

/** A form checked by a zod schema; the server applies the same rules where they are shared. */
export function useZodForm<S extends z.ZodType<FieldValues, z.ZodTypeDef, FieldValues>>(
  schema: S,
  defaultValues: z.input<S>,
) {
  return useForm<z.input<S>, unknown, z.output<S>>({
    resolver: zodResolver(schema),
    defaultValues: defaultValues as never,
  });
}

/** The spec shows a form's first problem as a warning toast. */
export function warnFirst(errors: FieldErrors): void {
  const first = Object.values(errors).find((e) => e?.message);
  if (first?.message) toast.warning(String(first.message), { toastId: String(first.message) });
}
