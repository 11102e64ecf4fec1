import type { ChalkInstance } from 'chalk';
import type { Column } from '../../render/output.js';
import type { Pet } from '../../schemas.js';

const STATUS_COLORS: Record<string, (chalk: ChalkInstance, text: string) => string> = {
  available: (chalk, text) => chalk.green(text),
  pending: (chalk, text) => chalk.yellow(text),
  sold: (chalk, text) => chalk.dim(text),
};

/** The columns every command that shows animals uses. */
export const PET_COLUMNS: Column<Pet>[] = [
  { header: 'ID', value: (pet) => pet.id, fixed: true },
  { header: 'NAME', value: (pet) => pet.name },
  // An identifier too: a category id cut to `922337203685477…` names no category.
  { header: 'CATEGORY', value: (pet) => pet.categoryId, fixed: true },
  {
    header: 'STATUS',
    value: (pet) => pet.status,
    color: (text, chalk) =>
      (Object.hasOwn(STATUS_COLORS, text) ? STATUS_COLORS[text]?.(chalk, text) : text) ?? text,
  },
];
