/** Types of colour.js: the stated conversions of the PSD fidelity measurement (see that file). */
export declare const MAX_16: 65535;
export declare function from16(v: number): number;
export declare function linearToSrgb(v: number): number;
export declare function srgbToLinear(v: number): number;
export declare function clamp01(v: number): number;
export declare function fromFloatColour(v: number): number;
export declare function fromFloatAlpha(v: number): number;
export declare function cmykStoredToRgb(c: number, m: number, y: number, k: number): [number, number, number];
export declare function labToRgb(L: number, a: number, b: number): [number, number, number];
export declare function labStoredToRgb(l: number, a: number, b: number): [number, number, number];
export declare function fromBitmapBit(bit: number): number;
