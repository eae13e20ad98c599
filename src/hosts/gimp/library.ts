/*
 * The Scheme support library the adapter loads once into each GIMP process (globals persist across Script-Fu
 * connections). `br-loaded` marks it as present. Procedures return plain lists; the adapter parses them in TS,
 * which is ~4× faster than building JSON in TinyScheme (measured).
 *
 * Errors the adapter maps to protocol codes are raised as `(error "BR:<CODE>:<text>")`. `error` is never called
 * inside `catch` (a stale handler would leak into later calls; every request also resets `*handlers*`).
 */

import { createHash } from "node:crypto";
import { EDIT_COMMON_SCHEME } from "./edits/scheme-common.js";
import { EDIT_DOCUMENT_SCHEME } from "./edits/scheme-document.js";
import { EDIT_FILTER_SCHEME } from "./edits/scheme-filters.js";
import { EDIT_LAYER_SCHEME } from "./edits/scheme-layers.js";
import { EDIT_SELECTION_SCHEME } from "./edits/scheme-selection.js";
import { EDIT_TEXT_SCHEME } from "./edits/scheme-text.js";

/** Prefix of replies: what follows is `<kind><length>:<payload>` (see `br-reply`). */
export const REPLY_MARK = "\u0001BR";

export const LIBRARY_SOURCE = `(begin
(define (br-fail code text) (error (string-append "BR:" code ":" text)))

; Evaluates thunk and writes its value into file; the mark printed after any output says so. Always a file:
; Script-Fu's string ports lose the part of an atom that crosses one of their 256-byte blocks (measured: a list of
; 400 five-digit numbers written to a string port came back 19 characters short), so no reply is built in one.
(define (br-reply thunk file)
  (let* ((v (thunk)) (p (open-output-file file)))
    (write v p)
    (close-output-port p)
    (display (string-append (string (integer->char 1)) "BRF0:"))
    (string->symbol "")))

(define (br-image img)
  (if (= (car (gimp-image-is-valid img)) 0) (br-fail "DOCUMENT_NOT_FOUND" (number->string img)))
  img)

(define (br-layer img l)
  (br-image img)
  (if (or (= (car (gimp-item-is-valid l)) 0)
          (= (car (gimp-item-is-layer l)) 0)
          (not (= (car (gimp-item-get-image l)) img)))
      (br-fail "LAYER_NOT_FOUND" (number->string l)))
  l)

(define (br-name img)
  (if (member "bridge-name" (cadr (gimp-image-get-parasite-list img)))
      (caddr (car (gimp-image-get-parasite img "bridge-name")))
      ""))

(define (br-set-name img name)
  (gimp-image-attach-parasite img (list "bridge-name" 0 name)))

(define (br-doc img)
  (br-image img)
  (list img (car (gimp-image-get-name img)) (br-name img)
        (car (gimp-image-width img)) (car (gimp-image-height img))
        (car (gimp-image-get-resolution img)) (car (gimp-image-base-type img))
        (car (gimp-image-is-dirty img)) (car (gimp-image-get-filename img))
        (car (gimp-image-get-active-layer img))))

(define (br-docs) (map br-doc (vector->list (cadr (gimp-image-list)))))

(define (br-images) (vector->list (cadr (gimp-image-list))))

; The image a call without a document id targets: the bridge's active image while it is open, else the newest.
(define (br-pick hint)
  (let ((ids (br-images)))
    (cond ((member hint ids) hint)
          ((null? ids) (br-fail "NO_DOCUMENT" "No image is open in GIMP"))
          (else (car ids)))))

; GIMP sizes an empty group 1x1 at the origin; the bridge reports it as empty (all zero).
(define (br-empty-group? l)
  (and (= (car (gimp-item-is-group l)) 1) (= (car (gimp-item-get-children l)) 0)))

; (id name kind visible opacity mode x y w h children locked mask-applies text), mask-applies -1 without a mask,
; text a text layer's br-text-info, () for any other layer.
(define (br-layer-info l)
  (let ((group (= (car (gimp-item-is-group l)) 1))
        (text (= (car (gimp-item-is-text-layer l)) 1))
        (empty (br-empty-group? l))
        (off (gimp-drawable-offsets l)))
    (list l (car (gimp-item-get-name l))
          (if group 1 (if text 2 0))
          (car (gimp-item-get-visible l)) (car (gimp-layer-get-opacity l)) (car (gimp-layer-get-mode l))
          (if empty 0 (car off)) (if empty 0 (cadr off))
          (if empty 0 (car (gimp-drawable-width l))) (if empty 0 (car (gimp-drawable-height l)))
          (if group (map br-layer-info (vector->list (cadr (gimp-item-get-children l)))) '())
          (car (gimp-item-get-lock-content l))
          (if (< (car (gimp-layer-get-mask l)) 0) -1 (car (gimp-layer-get-apply-mask l)))
          (if text (br-text-info l) '()))))

; The image's top-level layers; the bottom one is GIMP's background layer (kind 3) when it is a pixel layer
; without an alpha channel, as GIMP makes it for a flattened image or an opened JPEG.
(define (br-tree img)
  (br-image img)
  (list (car (gimp-image-get-active-layer img))
        (let ((infos (map br-layer-info (vector->list (cadr (gimp-image-get-layers img))))))
          (if (null? infos) infos (br-mark-background infos)))))

(define (br-mark-background infos)
  (if (pair? (cdr infos)) (cons (car infos) (br-mark-background (cdr infos)))
      (let* ((info (car infos)) (l (car info)))
        (if (and (= (caddr info) 0) (= (car (gimp-drawable-has-alpha l)) 0))
            (list (cons l (cons (cadr info) (cons 3 (cdddr info)))))
            infos))))

; A document and its layer tree in one round trip: every layer-scoped call reads it first.
(define (br-doc-tree img) (list (br-doc img) (br-tree img)))

(define (br-selection img)
  (let ((b (gimp-selection-bounds img))) (if (= (car b) 0) '() (cdr b))))

; The selection of an image chosen by br-pick, with the image: (img x1 y1 x2 y2) or (img).
(define (br-selection-of img)
  (br-image img)
  (cons img (br-selection img)))

(define (br-poll-current hint)
  (let ((ids (br-images)))
    (if (null? ids) '()
        (let ((img (if (member hint ids) hint (car ids))))
          (cons img (br-poll img))))))

(define (br-poll img)
  (br-image img)
  (list (car (gimp-image-is-dirty img)) (car (gimp-image-get-active-layer img)) (br-selection img)
        (car (gimp-image-get-layers img))))

(define (br-set-selection img x y w h)
  (br-image img)
  (if (and (> w 0) (> h 0))
      (gimp-image-select-rectangle img CHANNEL-OP-REPLACE x y w h)
      (gimp-selection-none img))
  (br-selection img))

; Hard-edged shapes, as the embedded editor selects them (pixels whose centres fall inside).
(define (br-hard-select img thunk)
  (br-image img)
  (gimp-context-push)
  (gimp-context-set-antialias FALSE)
  (gimp-context-set-feather FALSE)
  (thunk)
  (gimp-context-pop)
  (br-selection img))

(define (br-select-ellipse img x y w h)
  (br-hard-select img (lambda () (gimp-image-select-ellipse img CHANNEL-OP-REPLACE x y w h))))

; The polygon's coordinates (x1 y1 x2 y2 ...) are read from file: 10 000 points do not fit in one request.
(define (br-select-polygon img file)
  (let* ((p (open-input-file file)) (xy (read p)))
    (close-input-port p)
    (br-hard-select img (lambda () (gimp-image-select-polygon img CHANNEL-OP-REPLACE (length xy) (list->vector xy))))))

(define (br-png img drawable file)
  (file-png-save2 RUN-NONINTERACTIVE img drawable file file 0 3 0 0 0 1 0 0 0))

; A scratch image's rendered layer into file for the bridge to read: as XCF, which GIMP writes itself, when the
; image is 8-bit and not indexed (the bridge reads those); else as PNG, through the file-png plug-in, a process
; GIMP starts for every save. The image's other top-level layers are dropped first: the XCF must hold only this one.
(define (br-save-pixels img drawable file)
  (if (and (= (car (gimp-image-get-precision img)) PRECISION-U8-GAMMA) (not (= (car (gimp-image-base-type img)) INDEXED)))
      (begin
        (for-each (lambda (other) (if (not (= other drawable)) (gimp-image-remove-layer img other)))
                  (vector->list (cadr (gimp-image-get-layers img))))
        (gimp-xcf-save 0 img drawable file file))
      (br-png img drawable file)))

; A layer (or a group's composite) with its opacity applied, scaled to w×h, into file (br-save-pixels); answers
; its place (x y width height), or () for an empty group (nothing is written).
(define (br-export-layer img l w h file)
  (br-layer img l)
  (if (br-empty-group? l) '() (br-export-pixels img l w h file)))

(define (br-export-pixels img l w h file)
  (let* ((off (gimp-drawable-offsets l))
         (lw (car (gimp-drawable-width l))) (lh (car (gimp-drawable-height l)))
         ; An indexed layer goes into an RGB image: a new indexed image has no colour map to copy it into.
         (base (car (gimp-image-base-type img)))
         (tmp (car (gimp-image-new lw lh (if (= base INDEXED) RGB base))))
         (c (car (gimp-layer-new-from-drawable l tmp))))
    (gimp-image-insert-layer tmp c 0 0)
    (let ((res (gimp-image-get-resolution img))) (gimp-image-set-resolution tmp (car res) (cadr res)))
    (gimp-item-set-visible c TRUE)
    (gimp-layer-set-offsets c 0 0)
    (let ((m (car (gimp-image-merge-visible-layers tmp CLIP-TO-IMAGE))))
      (gimp-layer-resize-to-image-size m)
      (if (not (and (= w lw) (= h lh))) (gimp-image-scale tmp w h))
      (br-save-pixels tmp m file))
    (gimp-image-delete tmp)
    (list (car off) (cadr off) lw lh)))

; The visible composite of the whole canvas, scaled to w×h, into file (br-save-pixels); answers (img width height).
(define (br-export-doc img w h file)
  (br-image img)
  (let* ((dup (car (gimp-image-duplicate img))))
    (if (= (car (gimp-image-get-layers dup)) 0)
        (gimp-image-insert-layer dup (car (gimp-layer-new dup (car (gimp-image-width dup)) (car (gimp-image-height dup)) RGBA-IMAGE "empty" 100 LAYER-MODE-NORMAL)) 0 0))
    (let ((m (car (gimp-image-merge-visible-layers dup CLIP-TO-IMAGE))))
      (gimp-layer-resize-to-image-size m)
      (if (not (and (= w (car (gimp-image-width dup))) (= h (car (gimp-image-height dup))))) (gimp-image-scale dup w h))
      (br-save-pixels dup m file))
    (gimp-image-delete dup)
    (list img (car (gimp-image-width img)) (car (gimp-image-height img)))))

(define (br-create w h name fill r g b)
  (let* ((img (car (gimp-image-new w h RGB)))
         (l (car (gimp-layer-new img w h (if (= fill 0) RGBA-IMAGE RGB-IMAGE) (if (= fill 0) "Layer 1" "Background") 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img l 0 0)
    (gimp-context-push)
    (gimp-context-set-background (list r g b))
    (if (= fill 0) (gimp-drawable-fill l FILL-TRANSPARENT) (gimp-drawable-fill l FILL-BACKGROUND))
    (gimp-context-pop)
    (br-set-name img name)
    (gimp-image-clean-all img)
    img))

; Loads file as the image of path, clean: file is the bridge's staged copy of path, or path itself.
(define (br-open file path)
  (let ((img (car (gimp-file-load RUN-NONINTERACTIVE file file))))
    (if (not (string=? file path)) (gimp-image-set-filename img path))
    (gimp-image-clean-all img)
    img))

; An image just opened or made, with what making it again needs: (document ((layer tattoo) ...)).
(define (br-opened img) (list (br-doc img) (br-tattoos img)))

; An image made again after a loss (opened anew, or by the form that first made it): (img ((layer tattoo) ...)).
(define (br-remade img) (list img (br-tattoos img)))

; Writes the image to file (a temporary sibling the bridge then renames over the target).
(define (br-save img file psd)
  (br-image img)
  (let ((d (car (gimp-image-get-active-drawable img))))
    (if psd (file-psd-save RUN-NONINTERACTIVE img d file file 1 0) (gimp-xcf-save 0 img d file file)))
  #t)

; Records that the image now lives in file and is saved.
(define (br-saved img file)
  (br-image img)
  (gimp-image-set-filename img file)
  (if (member "bridge-name" (cadr (gimp-image-get-parasite-list img))) (gimp-image-detach-parasite img "bridge-name"))
  (gimp-image-clean-all img)
  #t)

;; Recovery copies. Every layer with its tattoo, groups before their children: ((layer tattoo) ...).
(define (br-tattoos-of layers)
  (if (null? layers) '()
      (let ((l (car layers)))
        (cons (list l (car (gimp-item-get-tattoo l)))
              (append (if (= (car (gimp-item-is-group l)) 1) (br-tattoos-of (vector->list (cadr (gimp-item-get-children l)))) '())
                      (br-tattoos-of (cdr layers)))))))

(define (br-tattoos img) (br-tattoos-of (vector->list (cadr (gimp-image-get-layers img)))))

; Writes img as XCF to file (a copy: the image keeps its file name and dirty flag) and answers what reopening it
; needs that XCF does not keep: (dirty filename bridge-name ((layer tattoo) ...)).
(define (br-copy img file)
  (br-image img)
  (gimp-xcf-save 0 img (car (gimp-image-get-active-drawable img)) file file)
  (list (car (gimp-image-is-dirty img)) (car (gimp-image-get-filename img)) (br-name img) (br-tattoos img)))

; Reopens a copy as the image it was: its file name ("" for none), bridge name and dirty flag (an undoable
; parasite attached and detached dirties it). Answers (img ((layer tattoo) ...)).
(define (br-reopen copy path name dirty)
  (let ((img (car (gimp-xcf-load 0 copy copy))))
    (gimp-image-set-filename img path)
    (if (not (string=? name "")) (br-set-name img name))
    (gimp-image-clean-all img)
    (if (= dirty 1)
        (begin (gimp-image-attach-parasite img (list "bridge-dirty" 2 "1")) (gimp-image-detach-parasite img "bridge-dirty")))
    (list img (br-tattoos img))))

; Loads file as a layer directly above the layer above (in its group), or at the top for -1; makes it active.
(define (br-import img file above name x y)
  (br-image img)
  (let* ((place (br-place img above))
         (l (car (gimp-file-load-layer RUN-NONINTERACTIVE img file))))
    (gimp-image-insert-layer img l (car place) (cadr place))
    (gimp-item-set-name l name)
    (gimp-layer-set-offsets l x y)
    (gimp-image-set-active-layer img l)
    l))

(define (br-place img target)
  (if (< target 0) (list 0 0)
      (let ((parent (car (gimp-item-get-parent (br-layer img target)))))
        (list (if (< parent 0) 0 parent) (car (gimp-image-get-item-position img target))))))

(define (br-first-new now before)
  (cond ((null? now) -1) ((member (car now) before) (br-first-new (cdr now) before)) (else (car now))))

; The selection outline as an SVG file, after growing the selection by expand px; the selection is restored.
; Answers (img x1 y1 x2 y2) of the grown selection, or (img) when nothing is selected.
(define (br-selection-path img expand file)
  (br-image img)
  (cons img (br-outline img expand file)))

(define (br-outline img expand file)
  (if (= (car (gimp-selection-is-empty img)) 1) '()
      (let* ((saved (car (gimp-selection-save img)))
             (before (vector->list (cadr (gimp-image-get-vectors img)))))
        (if (> expand 0) (gimp-selection-grow img expand))
        (let ((b (cdr (gimp-selection-bounds img))))
          (plug-in-sel2path RUN-NONINTERACTIVE img (car (gimp-image-get-active-drawable img)))
          (let ((v (br-first-new (vector->list (cadr (gimp-image-get-vectors img))) before)))
            (if (>= v 0)
                (begin (gimp-vectors-export-to-file img file v) (gimp-image-remove-vectors img v)))
            (gimp-image-select-item img CHANNEL-OP-REPLACE saved)
            (gimp-image-remove-channel img saved)
            (if (>= v 0) b '()))))))

; Flood-selects the background from the corner pixel, clears it, and leaves the subject selected.
(define (br-remove-background img l)
  (br-layer img l)
  (gimp-context-push)
  (gimp-context-set-sample-threshold 0.1)
  (gimp-context-set-sample-merged FALSE)
  (gimp-image-undo-group-start img)
  (gimp-image-select-contiguous-color img CHANNEL-OP-REPLACE l 0 0)
  (let ((found (= (car (gimp-selection-is-empty img)) 0)))
    (if found
        (begin (gimp-layer-add-alpha l) (gimp-drawable-edit-clear l) (gimp-selection-invert img)))
    (gimp-image-undo-group-end img)
    (gimp-context-pop)
    found))

; The subject's hint: the selection, else the canvas without a 5 % margin (GIMP has no subject detector).
(define (br-auto-cutout img l)
  (br-layer img l)
  (let ((b (gimp-selection-bounds img))
        (w (car (gimp-image-width img)))
        (h (car (gimp-image-height img))))
    (if (= (car b) 1)
        (br-cutout img l (cadr b) (caddr b) (- (cadddr b) (cadr b)) (- (car (cddddr b)) (caddr b)))
        (br-cutout img l (quotient w 20) (quotient h 20) (max 1 (quotient (* 9 w) 10)) (max 1 (quotient (* 9 h) 10))))))

; Matting with a trimap: the hint rectangle is "unknown", its inner half "foreground", the rest "background".
(define (br-cutout img l x y w h)
  (br-layer img l)
  (let ((m (car (gimp-channel-new img (car (gimp-image-width img)) (car (gimp-image-height img)) "trimap" 100 '(0 0 0)))))
    (gimp-context-push)
    (gimp-image-insert-channel img m 0 0)
    ; Fills and inverts act inside the selection only: clear it so the whole trimap starts as background.
    (gimp-selection-none img)
    (gimp-context-set-foreground '(0 0 0))
    (gimp-drawable-edit-fill m FILL-FOREGROUND)
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE x y w h)
    (gimp-context-set-foreground '(128 128 128))
    (gimp-drawable-edit-fill m FILL-FOREGROUND)
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE (+ x (quotient w 4)) (+ y (quotient h 4)) (max 1 (quotient w 2)) (max 1 (quotient h 2)))
    (gimp-context-set-foreground '(255 255 255))
    (gimp-drawable-edit-fill m FILL-FOREGROUND)
    (gimp-selection-none img)
    ; Matting runs on the visible composite (measured: a layer with offsets or alpha yields an empty selection).
    (let ((c (car (gimp-layer-new-from-visible img img "cutout"))))
      (gimp-image-insert-layer img c 0 0)
      (gimp-drawable-foreground-extract c FOREGROUND-EXTRACT-MATTING m)
      (gimp-image-remove-layer img c))
    (gimp-image-remove-channel img m)
    (gimp-context-pop)
    (= (car (gimp-selection-is-empty img)) 0)))
${EDIT_COMMON_SCHEME}${EDIT_LAYER_SCHEME}${EDIT_TEXT_SCHEME}${EDIT_DOCUMENT_SCHEME}${EDIT_SELECTION_SCHEME}${EDIT_FILTER_SCHEME}
#t)`;

/**
 * The global that marks this exact library as loaded: named after a hash of its text, so a GIMP that still holds
 * an older version (attach mode) gets the new definitions.
 */
export const LIBRARY_MARKER = `br-lib-${createHash("sha256").update(LIBRARY_SOURCE).digest("hex").slice(0, 12)}`;
