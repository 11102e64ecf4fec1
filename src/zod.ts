// zod/mini, configured once: the same schemas and checks as `zod`, for a fraction of the
// start-up cost (docs/performance.md). Mini
// loads no messages by default: English, from the one locale file, keeps them readable.
// Import it as a namespace (`import * as z`), so that the bundler keeps only what is used.

import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
