import { zodResolver } from '@hookform/resolvers/zod';
import { useForm, type FieldErrors, type FieldValues, type Path } from 'react-hook-form';
import { toast } from './toast';
import type { z } from 'zod';

/**
 * A form checked by a zod schema; the server applies the same rules where they are shared.
 * `field(name)` registers an input and adds its problem (`errorOf(name)`), for a TextField
 * or PasswordInput to show under it with aria-invalid; a Field takes the problem alone.
 */
export function useZodForm<S extends z.ZodType<FieldValues, z.ZodTypeDef, FieldValues>>(
  schema: S,
  defaultValues: z.input<S>,
) {
  const form = useForm<z.input<S>, unknown, z.output<S>>({
    resolver: zodResolver(schema),
    defaultValues: defaultValues as never,
  });
  const errorOf = (name: Path<z.input<S>>) => form.getFieldState(name, form.formState).error?.message;
  const field = (name: Path<z.input<S>>) => ({ ...form.register(name), error: errorOf(name) });
  return { ...form, field, errorOf };
}

/** The spec shows a form's first problem as a warning toast; each field also shows its own. */
export function warnFirst(errors: FieldErrors): void {
  const first = Object.values(errors).find((e) => e?.message);
  if (first?.message) toast.warning(String(first.message), { toastId: String(first.message) });
}
