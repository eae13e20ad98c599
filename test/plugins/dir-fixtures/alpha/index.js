export default { id: "alpha", setup() {} };
