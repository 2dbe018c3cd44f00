// Types of eslint.boundaries.js for the spec that runs its rules (spec/lint/boundaries.spec.ts).
import type { Linter } from 'eslint';

export declare const boundaries: Linter.Config[];
